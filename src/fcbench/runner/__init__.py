"""fcbench.runner"""
